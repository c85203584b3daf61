"""Program files: one YAML per decree, its schema, its loading and the offer parameters."""
