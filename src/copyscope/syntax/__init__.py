"""Syntax stage: parses of every text set (training split, human continuations, samples) and
the analyses that read them (RAVEN syntactic novelty, Shaib et al.'s syntactic templates).

The data model shared by the parsers and the analyses is in :mod:`copyscope.syntax.types`.
"""
