"""The foundation every layer may use: errors, paths, atomic files, the executor seam, scatter labels."""
