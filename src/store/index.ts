// Public API of src/store (filled in by its issue).
export {};
