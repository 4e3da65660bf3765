"""The user's desktop, reached without a shell: opening a paper's page in the browser
(browser.py) and copying text with the desktop's clipboard tool (clipboard.py)."""
