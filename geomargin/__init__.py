"""geomargin: learning from structurally absent features.

The namespace of the project's packages. Each is a top-level folder of the
repository, mapped under this name by ``[tool.setuptools.package-dir]`` in
``pyproject.toml``, so that the repository keeps the design card's folders
(``featurize/``, ``models/``, ``data/``, ...) and an installation holds one
package, ``geomargin``:

- ``geomargin.common``: configuration checks, atomic writes, typed errors.
- ``geomargin.data``: the input registry and the fetch step.
- ``geomargin.featurize``: feature blocks (metabolic, vision, tabular).
- ``geomargin.models``: the estimators (scikit-learn conventions, NaN = absent).
- ``geomargin.rank``: scoring, calibration and validation of the gene ranking.
- ``geomargin.detect``: car detection from part candidates.
- ``geomargin.report``: the browser, the results pages and the report.

Install it with ``pip install -e .`` (the README's set-up does, through
``requirements.txt``) or ``pip install .``.

Examples
--------
>>> from geomargin.models import GeometricMarginSVC
>>> GeometricMarginSVC().get_params()["C"]
1.0
"""

__version__ = "0.1.0"
