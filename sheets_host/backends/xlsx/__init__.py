"""The offline backend: `.xlsx` books in a folder, read and written as OOXML."""
