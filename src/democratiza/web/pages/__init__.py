"""The HTML pages, one module per feature, with their templating and charts."""
