// Public API of src/channels (filled in by its issue).
export {};
