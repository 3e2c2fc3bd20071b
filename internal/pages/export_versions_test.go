package pages

// VersionDocsHeld reports how many version documents s holds for the next
// archive (see versionDocs).
func VersionDocsHeld(s *Service) int { return s.versionDocs.cache().Len() }
