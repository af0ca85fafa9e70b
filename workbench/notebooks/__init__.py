"""Papermill-parameterised notebooks: parameter checks and the batch runner."""
