"""The shared kit games and the engine are built from: cells and their text, errors, tab schemas,
layouts, drawing, the console, and the `Game` interface with its seeded generators."""
