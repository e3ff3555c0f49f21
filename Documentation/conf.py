# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Sphinx configuration of Documentation/. Built by "make htmldocs"
# (scripts/htmldocs.sh) with Debian's python3-sphinx into build/htmldocs;
# every warning fails the build.

project = 'softhca'
author = 'the softhca developers'
copyright = 'the softhca developers; GPL-2.0 OR BSD-2-Clause'

root_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
source_encoding = 'utf-8'
language = 'en'

# Literal blocks are diagrams, register layouts and command lines, not
# Python: do not highlight them unless a block says which language it is.
highlight_language = 'none'
# Keep "--", quotes and "..." exactly as written.
smartquotes = False

html_theme = 'alabaster'
html_title = 'softhca documentation'
html_theme_options = {
    'description': 'a software RDMA HCA for Linux',
    'page_width': '1100px',
    'sidebar_width': '240px',
}
html_show_sphinx = False
