"""Cross-study comparisons: one study's method on another study's data.

* :mod:`~cdaflow.cross_study.cda_on_regender`: Study A's morphological CDA on Study B's test sets
  (Jain et al. 2021, §6), with and without character adjectives, scored with B's metrics.
* :mod:`~cdaflow.cross_study.bias_swap`: Study D's bias score before and after D's own swap of
  English sentences, and on Study C's GAP-Subjective transfers of GAP sentences.
* :mod:`~cdaflow.cross_study.statistics`: the summaries of those paired scores (means and the paired
  difference with a bootstrap confidence interval).
"""
