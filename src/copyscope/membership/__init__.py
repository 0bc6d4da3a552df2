"""Membership stage: contamination and memorization detectors scored against planted answers.

* :mod:`.scores` — per-text membership scores from per-token log-probabilities: loss,
  Min-K% Prob (Shi et al. 2024), zlib ratios (Carlini et al. 2021; Shi et al. 2024),
  reference-model ratio, lowercase ratio (Carlini et al. 2021).
* :mod:`.evaluate` — a detector against known labels: ROC AUC, TPR at 5% FPR, best balanced
  accuracy, with seeded bootstrap confidence intervals.
* :mod:`.placement` — Li (2023)'s perplexity placement of a benchmark between a clean and a
  memorised baseline, and copyscope's normalised position.
* :mod:`.cloze` — name cloze items (Chang et al. 2023; Zhang et al. 2024) built from the plays
  and scored by ranking candidate names.
* :mod:`.overlap` — Zhang et al. (2024)'s continuation-overlap pilot measures and the
  across-play correlation.
"""
