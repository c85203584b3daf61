"""How the reports are drawn: chart style and SVG, tables on PDF pages, text, HTML, files.

A layer below the reports (``docs/arquitectura.md``): nothing here knows a report, an offer
or a fine; each report module composes these pieces.
"""
