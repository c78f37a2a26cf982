package io.paimongov.tck;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A property that writes real tables: it runs {@code governance.tck.write-tries} tries. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface Heavy {}
