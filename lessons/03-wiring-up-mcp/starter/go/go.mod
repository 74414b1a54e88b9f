module example.com/mcpclient

go 1.22
