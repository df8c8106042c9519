/* placeholder replaced by the command dispatcher */
int main(void)
{
	return 5;
}
