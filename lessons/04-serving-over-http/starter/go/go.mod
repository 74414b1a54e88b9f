module example.com/starter

go 1.22
