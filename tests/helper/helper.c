/* placeholder replaced by the test helper */
int main(void)
{
	return 0;
}
