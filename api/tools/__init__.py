"""Developer tools run as modules (``python -m api.tools.golden``); not imported by the app."""
