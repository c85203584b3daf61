"""The files brokers send: formats as data, readers (CSV, XLSX, JSON) and typing."""
