"""Qt widgets: the main window, document tabs, docks, dialogs and plots."""
