"""Values a file holds, as reports and tables show them: texts bounded for
``verify --json`` (:mod:`.report_bounds`) and pandas scalars recognised without
importing pandas (:mod:`.pandas_values`)."""
