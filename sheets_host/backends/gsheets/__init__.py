"""The Google Sheets backend: gspread with google-auth, Drive for new books, a lease on the host book."""
