"""Storage: tables (SQLAlchemy Core), connections, migrations, bulk writes, the audit log."""
