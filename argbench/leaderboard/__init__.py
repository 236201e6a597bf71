"""The leaderboard: results files side by side, as a static site, and the real systems on it.

- :mod:`argbench.leaderboard.cqs_submissions`: the 15 CQs-Gen shared-task submissions of
  ``extended_test.json`` written as submission files and results documents, scored by the
  paper's §6.1 protocol (:mod:`argbench.scoring.cq_submissions`) with the simple baselines
  beside them.
- :mod:`argbench.leaderboard.cam_silver_gold`: CAM's ChatGPT (silver) and expert (gold)
  answers to the same 50 questions, scored as ``argbench evaluate`` scores a system.
- :mod:`argbench.leaderboard.table`: results files grouped into columns (one signature and
  one split per column), ranked, with intervals and paired tests (``compare``'s code).
- :mod:`argbench.leaderboard.site`: the static HTML site, CSV and JSON (``argbench leaderboard``).

Screenshots of the pages are taken by :mod:`argbench.browser` (headless Chromium).
Nothing heavy is imported here: ``argbench --help`` stays fast.
"""
