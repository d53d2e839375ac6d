// Placeholder so the library target exists before its first real source lands.
