package seald
