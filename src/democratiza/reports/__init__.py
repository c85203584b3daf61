"""Reports and files for people: decisions, adjudication, stages, statements, exports."""
