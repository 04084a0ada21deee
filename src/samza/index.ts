// Public API of src/samza (filled in by its issue).
export {};
