package auth

import "time"

// SetCacheClock makes c read the time from now.
func SetCacheClock(c *Cache, now func() time.Time) { c.now = now }
