"""Result sheets: reading CSV and Excel sheets, checking their rows and
importing them through the write side's commands."""
