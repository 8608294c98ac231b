<?php
return ['driver' => 'array', 'lifetime' => 120, 'expire_on_close' => false, 'encrypt' => false, 'files' => null,
    'connection' => null, 'table' => 'sessions', 'store' => null, 'lottery' => [2, 100], 'cookie' => 'dltest_session',
    'path' => '/', 'domain' => null, 'secure' => false, 'http_only' => true, 'same_site' => 'lax'];
