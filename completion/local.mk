# completion/ — bash completion for every command: one file, installed
# under each command's name (bash-completion loads a command's completion
# by its name; each copy defines all of them).  zsh's (_xcap) runs that
# file through bashcompinit, so it is told where make installs it.
bashcompdir = $(BASH_COMPLETION_DIR)
EXTRA_DIST += completion/xcap.bash completion/_xcap
zshcompdir = $(datadir)/zsh/vendor-completions
COMPLETED_COMMANDS = xcap xcapanalyse xcap-link xcap-sweep xcap-run xcap-replay
if NETPLOT
COMPLETED_COMMANDS += netplot
endif

install-data-local: install-bash-completion install-zsh-completion
install-bash-completion:
	$(MKDIR_P) "$(DESTDIR)$(bashcompdir)"
	$(INSTALL_DATA) $(srcdir)/completion/xcap.bash "$(DESTDIR)$(bashcompdir)/xcap"
	for c in $(COMPLETED_COMMANDS); do \
		test $$c = xcap || { rm -f "$(DESTDIR)$(bashcompdir)/$$c" && \
		$(LN_S) xcap "$(DESTDIR)$(bashcompdir)/$$c"; } || exit 1; \
	done

uninstall-local: uninstall-bash-completion uninstall-zsh-completion
uninstall-bash-completion:
	for c in $(COMPLETED_COMMANDS); do rm -f "$(DESTDIR)$(bashcompdir)/$$c"; done

install-zsh-completion:
	$(MKDIR_P) "$(DESTDIR)$(zshcompdir)"
	sed 's|@BASH_COMPLETION_FILE@|$(bashcompdir)/xcap|' $(srcdir)/completion/_xcap \
		>"$(DESTDIR)$(zshcompdir)/_xcap"
	chmod 644 "$(DESTDIR)$(zshcompdir)/_xcap"
uninstall-zsh-completion:
	rm -f "$(DESTDIR)$(zshcompdir)/_xcap"
