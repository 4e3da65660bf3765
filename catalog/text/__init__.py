"""Text, one job per module: tex.py (TeX and Markdown to Unicode), terminal.py (text safe to
print and to store), normalize.py (the form texts are compared in), cjk.py (Chinese,
Japanese and Korean for search)."""
