collect_ignore = ["testdata"]
