"""Git, and only here: reading source commits now; rendered commits and status refs later.

`repository` opens a repository safely and runs git for it; `tree` walks one commit's tree and
reads its files straight from the object database (no checkout, no working tree).
"""
