"""The HTML page templates' environment: every value escaped, a missing one an error."""

from __future__ import annotations

from jinja2 import Environment, StrictUndefined

PAGES = Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)
