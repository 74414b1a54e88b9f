module example.com/starter

go 1.26.0
