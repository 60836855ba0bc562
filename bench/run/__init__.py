"""Running models on tasks: the runner, executors, suites."""
