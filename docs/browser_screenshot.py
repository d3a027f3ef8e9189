"""Screenshot of the candidate browser in headless Chromium (the README's image).

    python docs/browser_screenshot.py results/enzyme_ranking.html docs/enzyme_browser.png \
        [--reaction REACTION_ID] [--search TEXT] [--width 1500] [--height 950]

Opens the page (file:// URL, no network), optionally types TEXT into the
search box and opens REACTION_ID's candidates, saves a PNG and prints the
browser console's errors (exit status 1 if there are any). Needs Debian's
chromium and chromium-driver and selenium (tests/chromium.py, the driver of the browser tests).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path


def load_chromium():
    """The Selenium driver of the browser tests, ``tests/chromium.py``: a test
    helper, not a module of the packages, loaded from its file."""
    path = Path(__file__).resolve().parents[1] / "tests" / "chromium.py"
    spec = importlib.util.spec_from_file_location("chromium", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page", type=Path)
    ap.add_argument("png", type=Path)
    ap.add_argument("--reaction", default="", help="directed reaction id to open")
    ap.add_argument("--search", default="", help="text typed into the search box")
    ap.add_argument("--width", type=int, default=1500)
    ap.add_argument("--height", type=int, default=950)
    args = ap.parse_args(argv)
    if not args.page.is_file():
        ap.error(f"{args.page}: no such file (build it: snakemake --cores all results/enzyme_ranking.html)")
    chromium = load_chromium()
    reason = chromium.missing_reason()
    if reason:
        print(f"cannot take the screenshot: {reason}", file=sys.stderr)
        return 2
    from selenium.webdriver.common.by import By

    driver = chromium.start_chromium(args.width, args.height)
    try:
        driver.get(chromium.page_url(args.page, args.reaction))
        if args.search:
            driver.find_element(By.ID, "search").send_keys(args.search)
        args.png.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(args.png))
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    finally:
        chromium.stop_chromium(driver)
    for e in errors:
        print(f"console {e['level']}: {e['message']}", file=sys.stderr)
    print(f"wrote {args.png} ({args.png.stat().st_size} bytes), {len(errors)} console errors")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
