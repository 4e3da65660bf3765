"""Files attached to papers, outside the database: the catalog's folder of files (attaching.py),
a PDF's text page by page (pdftext.py) and the marks a reader made in it (pdfannots.py), both
with pypdfium2, loaded only when a PDF is read. catalog.files (parts/files.py) uses them."""
