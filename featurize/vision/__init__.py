"""Part-based car features with structurally absent landmark candidates.

Reproduces the image features of Chechik et al. (2008, Sec. 4.1) on the UIUC
car crops (Agarwal, Awan & Roth 2004):

1. :func:`load_crops` reads the 100x40 training crops.
2. Orientation: cars face left or right. :func:`align_orientation` flips the
   positive crops iteratively to whichever orientation correlates better
   (Pearson) with the current mean car; :func:`orient_to` then flips *any*
   image - car or not - to whichever orientation correlates better with that
   mean car. :class:`CarPartFeaturizer` uses the label-free :func:`orient_to` on
   every crop it transforms (training and test, cars and non-cars alike): at
   test time the label is unknown, so a label-dependent rule ("flip cars, leave
   non-cars") would leak the label into the features, and leaving training
   non-cars unflipped would make them distributed differently from the test
   non-cars, which do get matched. On training cars the two rules agree at
   convergence.
3. :class:`LandmarkModel` chooses ``n_landmarks`` patch centres on the car frame
   where the normalised cross-correlation (NCC) of a patch with the mean car
   patch separates cars from non-cars best (Fisher score), spread out by a
   greedy non-maximum suppression with a minimum distance, and keeps the mean
   (z-normalised) car patch of each landmark as its template.
4. Candidates: in each image each landmark is searched inside a window of
   ``search_radius`` pixels around its expected position by one of two
   detectors: ``"ncc"`` (:func:`landmark_candidates`: normalised
   cross-correlation with the landmark's mean car patch,
   ``cv2.matchTemplate(..., TM_CCOEFF_NORMED)``) or ``"hog"``
   (:class:`HogLandmarkDetector`: a per-landmark logistic regression on the
   patch's HOG descriptor, :func:`geomargin.featurize.vision.hog.dense_hog`, scored as a
   probability). Candidates are the local maxima (3x3, within the window)
   scoring above the detector's threshold, at most ``max_candidates`` per
   landmark, ordered by decreasing score. Missing slots are *structurally
   absent*.
5. :class:`CarPartFeaturizer` describes each candidate by the first ``n_pca``
   principal-component coefficients of its z-normalised patch (one PCA per
   landmark, fitted on the training candidates only) and, with
   ``slot_place`` (the workflow's default), by its offset from the
   landmark's expected place and the detector's evidence; it lays them out
   as described in its docstring, NaN for absent slots.

Everything is computed by the same code for crops and for sliding windows in
a scene (:meth:`CarPartFeaturizer.transform_windows`), where each landmark's
response map is computed once per scene and every window reads its candidates
from it.

Modules, one concern each: :mod:`~geomargin.featurize.vision.images` (1),
:mod:`~geomargin.featurize.vision.orientation` (2), :mod:`~geomargin.featurize.vision.landmarks`
(3), :mod:`~geomargin.featurize.vision.candidates` (4, the NCC detector and the
candidate reader both detectors share), :mod:`~geomargin.featurize.vision.hog` and
:mod:`~geomargin.featurize.vision.hog_detector` (4, the HOG detector),
:mod:`~geomargin.featurize.vision.featurizer` (5) and :mod:`~geomargin.featurize.vision.counts`
(how many candidates cars and non-cars get).
"""
