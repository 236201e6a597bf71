"""The metric algorithms: one module per metric, plain functions over Python/numpy data.

The evaluate modules in ``metrics/<name>/`` declare features and call these; each number is
defined in the metric's card.
"""
