"""Fakes of Google's Sheets and Drive APIs and of a Discord webhook, as gspread and discord-webhook
talk to them: for the tests and `bench --google`. Not the product."""
