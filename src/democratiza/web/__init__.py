"""The web service: JSON API, pages, sessions and tokens (``create_app`` in ``app.py``)."""
