"""Test doubles that ship with the package: scripted agents and scripted framework models.

Tests, examples and notebooks drive the same code offline with these. Modules:
``scripted`` (rule-based callable agents standing in for a model) and one module
per framework with a scripted model for it.
"""
