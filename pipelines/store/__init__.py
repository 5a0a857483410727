"""The pipeline's own records through SQLModel: the task store and the raw landing zone."""
