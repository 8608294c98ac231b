<?php
/*
 * tests/pie/check-php-ext.php COMPOSER_JSON CONFIGURE_HELP PACKAGE_XML
 *
 * Checks the root composer.json as PIE reads it (the rules of PIE's
 * resources/composer-json-php-ext-schema.json, which Composer 2.5's own
 * schema does not know yet), and that it agrees with the build and with
 * package.xml:
 *   - name distlock/distlock, type php-ext, php-ext.extension-name distlock;
 *   - every php-ext key is one PIE knows, with the right type;
 *   - every configure option is an option of ./configure (CONFIGURE_HELP is
 *     `./configure --help` of the phpized tree) that takes a value exactly
 *     when needs-value says so; with-hiredis is there and takes a path;
 *   - require.php is the range of package.xml's <php><min>/<max>.
 * Prints one line per problem; exit 1 if any.
 */
[$self, $composerFile, $helpFile, $packageXml] = $argv + [null, null, null, null];
$bad = [];
$j = json_decode((string)@file_get_contents($composerFile), true);
if (!is_array($j)) {
    fwrite(STDERR, "$composerFile: not JSON\n");
    exit(1);
}
$help = (string)@file_get_contents($helpFile);

($j['name'] ?? null) === 'distlock/distlock' || $bad[] = 'name is not distlock/distlock';
($j['type'] ?? null) === 'php-ext' || $bad[] = 'type is not php-ext';
$ext = $j['php-ext'] ?? null;
if (!is_array($ext)) {
    $bad[] = 'no php-ext section';
    $ext = [];
}
($ext['extension-name'] ?? null) === 'distlock' || $bad[] = 'php-ext.extension-name is not distlock';

$known = [
    'extension-name' => 'is_string', 'priority' => 'is_int', 'support-zts' => 'is_bool',
    'support-nts' => 'is_bool', 'build-path' => fn($v) => $v === null || is_string($v),
    'override-download-url-method' => 'is_string', 'download-url-method' => fn($v) => is_string($v) || is_array($v),
    'os-families' => 'is_array', 'os-families-exclude' => 'is_array', 'configure-options' => 'is_array',
];
foreach ($ext as $k => $v) {
    if (!isset($known[$k])) {
        $bad[] = "php-ext.$k is not a key PIE knows";
    } elseif (!$known[$k]($v)) {
        $bad[] = "php-ext.$k has the wrong type";
    }
}
if (isset($ext['priority']) && is_int($ext['priority']) && ($ext['priority'] < 10 || $ext['priority'] > 99)) {
    $bad[] = 'php-ext.priority is outside 10..99';
}

// ./configure --help lines look like "  --with-hiredis[=DIR]   ..." or "  --enable-distlock  ...".
preg_match_all('/^\s+--((?:with|without|enable|disable)-[A-Za-z0-9_-]+)(\[?=[A-Za-z]*\]?)?/m', $help, $m, PREG_SET_ORDER);
$opts = [];
foreach ($m as $o) {
    $opts[$o[1]] = $o[2] ?? '';
}
if (!isset($opts['enable-distlock'])) {
    $bad[] = 'CONFIGURE_HELP does not list --enable-distlock (not the help of this extension?)';
}
$names = [];
foreach ($ext['configure-options'] ?? [] as $i => $o) {
    $name = is_array($o) ? ($o['name'] ?? null) : null;
    if (!is_string($name) || !preg_match('/^[a-zA-Z0-9][a-zA-Z0-9-_]*$/', $name)) {
        $bad[] = "configure-options[$i]: no valid name";
        continue;
    }
    $names[] = $name;
    foreach (array_keys($o) as $k) {
        in_array($k, ['name', 'needs-value', 'description'], true) || $bad[] = "configure-options[$i].$k is not a key PIE knows";
    }
    $needs = $o['needs-value'] ?? false;
    is_bool($needs) || $bad[] = "configure-options[$i].needs-value is not a boolean";
    isset($o['description']) && !is_string($o['description']) && $bad[] = "configure-options[$i].description is not a string";
    if (!isset($opts[$name])) {
        $bad[] = "configure option --$name is not an option of ./configure";
    } elseif ($needs && !str_contains($opts[$name], '=')) {
        $bad[] = "--$name takes no value in ./configure, but needs-value is true";
    }
}
in_array('with-hiredis', $names, true) || $bad[] = 'configure-options lacks with-hiredis';
foreach ($ext['configure-options'] ?? [] as $o) {
    if (($o['name'] ?? '') === 'with-hiredis' && ($o['needs-value'] ?? false) !== true) {
        $bad[] = 'with-hiredis must take a value (the hiredis prefix)';
    }
}

// The PHP range: composer.json's require.php is ">=MIN <MAX+1" of package.xml.
$x = (string)@file_get_contents($packageXml);
if (!preg_match('~<php>\s*<min>([^<]+)</min>\s*<max>([^<]+)</max>~', $x, $pm)) {
    $bad[] = 'package.xml has no <php><min>..</min><max>..</max>';
} else {
    [$min, $max] = [trim($pm[1]), trim($pm[2])];
    $p = explode('.', $max);
    $want = sprintf('>=%s <%d.%d.0', $min, (int)$p[0], (int)$p[1] + 1);
    $have = $j['require']['php'] ?? null;
    $have === $want || $bad[] = "require.php is " . var_export($have, true) . ", package.xml says $min..$max (want \"$want\")";
}

foreach ($bad as $b) {
    echo "$b\n";
}
exit($bad ? 1 : 0);
