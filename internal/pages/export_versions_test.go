package pages

// VersionDocsHeld reports how many version documents s holds for the next
// archive (see versionDocs).
func VersionDocsHeld(s *Service) int {
	s.versionDocs.mu.Lock()
	defer s.versionDocs.mu.Unlock()
	return len(s.versionDocs.docs)
}
