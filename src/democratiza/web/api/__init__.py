"""The JSON API, one module per feature, and the services the pages share with it."""
