// Public API of src/standby (filled in by its issue).
export {};
