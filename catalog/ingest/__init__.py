"""Reading files into plain records (records.py): one module per input format (paperlist.py,
bibtex.py, ris.py, jsonfile.py, csvfile.py), formats.py choosing by suffix, fields.py and
mapping.py turning each format's fields into the catalog's: kinds.py (kinds of publication),
people.py (authors as people), citekeys.py (a file's cite key, or one made). No database here."""
