package sqlite

// DSN exposes the connection string builder to the tests.
var DSN = dsn
