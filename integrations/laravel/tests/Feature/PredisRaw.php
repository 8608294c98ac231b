<?php

namespace DistLock\Laravel\Tests\Feature;

/**
 * Predis answering the few phpredis calls the tests make whose shapes differ
 * (eval's and set's arguments, info's sections); the rest goes to Predis as it is.
 * For PHP 8.5, where Debian builds no phpredis yet.
 */
final class PredisRaw
{
    public function __construct(private \Predis\Client $c)
    {
    }

    /** phpredis: eval($script, $args, $numKeys) */
    public function eval(string $script, array $args = [], int $numKeys = 0): mixed
    {
        return $this->c->eval($script, $numKeys, ...$args);
    }

    /** phpredis: info($section) is one flat array of that section's fields */
    public function info(string $section): array
    {
        $info = $this->c->info($section);
        return is_array(reset($info)) ? array_merge(...array_values($info)) : $info;
    }

    /** phpredis: set($key, $value, ['NX', 'EX' => 4]); true when set, false when NX found it */
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
