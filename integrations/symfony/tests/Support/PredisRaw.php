<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Support;

/**
 * Predis answering the phpredis calls the tests make, for a PHP without
 * phpredis (Debian builds none for PHP 8.5 yet: tests/symfony/root.sh):
 * the shapes that differ (set's options, info's sections, scan's iterator, a status reply)
 * are made phpredis's; the rest goes to Predis as it is.
 */
final class PredisRaw
{
    public function __construct(private \Predis\Client $c)
    {
    }

    /** phpredis: info($section) is one flat array of that section's fields */
    public function info(string $section): array
    {
        $info = $this->c->info($section);
        return is_array(reset($info)) ? array_merge(...array_values($info)) : $info;
    }

    /** phpredis: scan(&$iterator, $pattern, $count): the next keys, false once the cursor is back at 0 */
    public function scan(?int &$iterator, ?string $pattern = null, int $count = 0): array|false
    {
        if ($iterator === 0) {
            return false;
        }
        [$cursor, $keys] = $this->c->scan($iterator ?? 0, array_filter(['MATCH' => $pattern, 'COUNT' => $count ?: null]));
        $iterator = (int) $cursor;
        return $keys;
    }

    /** phpredis: type() is an int (\Redis::REDIS_STRING...); Redis::typeName() reads either */
    public function type(string $key): string
    {
        return (string) $this->c->type($key);
    }

    /** phpredis: set($key, $value, ['px' => 600, 'NX']); true when set, false when NX found it */
    public function set(string $key, mixed $value, array $options = []): bool
    {
        $args = [];
        foreach ($options as $k => $v) {
            array_push($args, ...(is_int($k) ? [$v] : [$k, $v]));
        }
        return (string) $this->c->set($key, $value, ...$args) === 'OK';
    }

    public function __call(string $method, array $args): mixed
    {
        $r = $this->c->{$method}(...$args);
        // phpredis answers a status reply (OK, PONG...) as true, Predis as a Status object
        return $r instanceof \Predis\Response\Status ? true : $r;
    }
}
