<?php
// tests/lib/load-classes.php AUTOLOAD SRC_DIR NAMESPACE — loads every class,
// interface and trait of a package's src/ (PSR-4: SRC_DIR is NAMESPACE\) through
// the given Composer autoloader, as an app on that framework version would.
// A class that cannot be loaded on it (a method its interface lacks, an
// abstract method it does not implement: a fatal error) ends the process;
// the line "loading <class>" before it names the class. Ends with
// "loaded N of N" and exits 0 only when every one loaded.
[, $autoload, $src, $ns] = $argv + [null, null, null, null];
if ($ns === null) { fwrite(STDERR, "usage: load-classes.php AUTOLOAD SRC_DIR NAMESPACE\n"); exit(2); }
require $autoload;
$names = [];
$it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($src, FilesystemIterator::SKIP_DOTS));
foreach ($it as $f) {
    if ($f->getExtension() !== 'php') continue;
    $rel = substr($f->getPathname(), strlen(rtrim($src, '/')) + 1, -4);
    $names[] = rtrim($ns, '\\') . '\\' . str_replace('/', '\\', $rel);
}
sort($names);
$ok = 0;
foreach ($names as $n) {
    echo "loading $n\n";
    if (class_exists($n) || interface_exists($n) || trait_exists($n) || enum_exists($n)) {
        $ok++;
    } else {
        echo "NOT LOADED: $n (no such class after autoloading its file)\n";
    }
}
echo "loaded $ok of ", count($names), "\n";
exit($ok === count($names) && $ok > 0 ? 0 : 1);
