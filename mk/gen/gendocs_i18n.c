/* The word list of the generated reference pages: every text a table
 * prints in prose (header words, command summaries, flag usages, exit
 * status meanings, recoveries) with its Chinese and Japanese rendering,
 * looked up by its English text (mk/gen/gendocs_words.def); wire names are
 * printed as they are.  A text whose
 * English changes in the code finds no row and fails the page until its
 * translations follow; a row whose English is printed nowhere any more
 * fails too, so the list holds no dead rows. */

#include <stdio.h>
#include <string.h>

#include "mk/gen/gendocs.h"

const char *const gendocs_lang_name[GENDOCS_LANG__COUNT] = { "en", "zh", "ja" };

static const struct word {
	const char *text[GENDOCS_LANG__COUNT];
} words[] = {
#define WORD(en, zh, ja) { { en, zh, ja } },
#include "mk/gen/gendocs_words.def"
#undef WORD
};

#define NWORDS (sizeof(words) / sizeof(words[0]))
#define MISSING_MAX 512

static enum gendocs_lang lang;
static unsigned char used[NWORDS];
static const char *missing[GENDOCS_LANG__COUNT][MISSING_MAX];
static size_t nmissing[GENDOCS_LANG__COUNT];
static int overflow;

void gendocs_set_lang(enum gendocs_lang l)
{
	lang = l;
}

static void remember_missing(const char *en)
{
	for (size_t i = 0; i < nmissing[lang]; i++)
		if (strcmp(missing[lang][i], en) == 0)
			return;
	if (nmissing[lang] < MISSING_MAX)
		missing[lang][nmissing[lang]++] = en;
	else
		overflow = 1;
}

/* A wire name, printed as it is in every language: one backquoted span,
 * a word with '-' or '_' and no space, or a text without a letter. */
static int is_wire(const char *s)
{
	size_t n = strlen(s);
	int letters = 0;

	if (n >= 2 && s[0] == '`' && s[n - 1] == '`' && memchr(s + 1, '`', n - 2) == NULL)
		return 1;
	if (strchr(s, ' ') == NULL && strpbrk(s, "-_"))
		return 1;
	for (; *s; s++)
		letters |= (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z');
	return !letters;
}

const char *gendocs_tr(const char *en)
{
	if (is_wire(en))
		return en;
	for (size_t i = 0; i < NWORDS; i++)
		if (strcmp(words[i].text[GENDOCS_EN], en) == 0) {
			used[i] = 1;
			return words[i].text[lang];
		}
	if (lang != GENDOCS_EN)
		remember_missing(en);
	return en;
}

enum gendocs_lang gendocs_lang(void)
{
	return lang;
}

const char *gendocs_punct(char c)
{
	static const char *const full[GENDOCS_LANG__COUNT][2] = {
		{ ".", ":" }, { "。", "：" }, { "。", "：" },
	};

	return full[lang][c == ':'];
}

int gendocs_i18n_check(int all)
{
	int rc = 0;

	for (int l = 0; l < GENDOCS_LANG__COUNT; l++)
		for (size_t i = 0; i < nmissing[l]; i++) {
			fprintf(stderr, "gendocs: mk/gen/gendocs_words.def has no %s text for \"%s\"\n",
				gendocs_lang_name[l], missing[l][i]);
			rc = -1;
		}
	if (overflow) {
		fprintf(stderr, "gendocs: more texts without a translation than listed\n");
		rc = -1;
	}
	for (size_t i = 0; all && i < NWORDS; i++)
		if (!used[i]) {
			fprintf(stderr, "gendocs: mk/gen/gendocs_words.def: \"%s\" is printed nowhere any more; "
				"remove or update its row\n", words[i].text[GENDOCS_EN]);
			rc = -1;
		}
	return rc;
}
