// (kept for the ELF work in progress)
